# Cross-compiling for Windows x64 with Debian's mingw-w64 (the `windows` preset, docs/windows.md).
#
# The POSIX-threads flavour of the compiler (g++-mingw-w64-x86-64-posix): std::thread and
# std::mutex need it (the win32 flavour has no <thread>). Its runtime libraries (libstdc++,
# libgcc, winpthread) are linked statically into every .exe and the DLL (cmake/Windows.cmake),
# so each file runs alone, without the compiler's DLLs beside it. wine64 runs them in the tests.
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)

set(_mingw x86_64-w64-mingw32)
set(CMAKE_C_COMPILER ${_mingw}-gcc-posix)
set(CMAKE_CXX_COMPILER ${_mingw}-g++-posix)
set(CMAKE_RC_COMPILER ${_mingw}-windres)

# Libraries and headers from the mingw-w64 sysroot only; programs (python3, npm) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/${_mingw})
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# The tests run the .exe files under wine64 (tests/windows).
set(CMAKE_CROSSCOMPILING_EMULATOR wine64)
