# The Windows x64 cross build (issue 31; the `windows` preset with cmake/toolchains/mingw-w64.cmake,
# CTest label `windows`, docs/windows.md).
#
# Included by the top-level CMakeLists.txt when WIN32 is set. It stands in for the find_package()
# calls of a native build: nlohmann/json, CLI11 and toml++ are header-only, so Debian's headers are
# used as they are, through a directory that holds only them (/usr/include itself on the path would
# put glibc's headers before mingw-w64's). Threads are mingw-w64's winpthread (the posix flavour of
# the compiler). Everything is linked statically (libstdc++, libgcc, winpthread): asyncfix.exe,
# asyncfix-lsp.exe and asyncfix.dll each run alone.

find_package(Threads REQUIRED)
add_link_options(-static)
# GCC 12's -Wrestrict warns about std::string's own inline code at -O3 (GCC bug 105329, a false
# positive the native build's -O2 does not reach).
add_compile_options(-Wno-restrict)
# The Windows headers without their min/max macros and the rarely used parts.
add_compile_definitions(WIN32_LEAN_AND_MEAN NOMINMAX UNICODE _UNICODE)

set(_windows_headers "${PROJECT_BINARY_DIR}/_deps/windows-include")
file(MAKE_DIRECTORY "${_windows_headers}")
foreach(_dir nlohmann CLI toml++)
  if(NOT EXISTS "/usr/include/${_dir}")
    message(FATAL_ERROR "asyncfix (windows): /usr/include/${_dir} is missing (scripts/install-deps.sh build)")
  endif()
  file(CREATE_LINK "/usr/include/${_dir}" "${_windows_headers}/${_dir}" SYMBOLIC)
endforeach()
foreach(_target nlohmann_json CLI11 tomlplusplus)
  add_library(asyncfix_windows_${_target} INTERFACE)
  target_include_directories(asyncfix_windows_${_target} SYSTEM INTERFACE "${_windows_headers}")
  add_library(${_target}::${_target} ALIAS asyncfix_windows_${_target})
endforeach()
