# What the Windows cross build makes beyond the commands (included from the top-level
# CMakeLists.txt; docs/windows.md): asyncfix.dll, and the tests that run them all under wine64.

# The DLL: the library's C and C++ API (ASYNCFIX_API is __declspec(dllexport) while it is built),
# named as the Python module looks for it (python/asyncfix/_capi.py), with no `lib` prefix; its
# import library is libasyncfix.dll.a.
set_target_properties(${ASYNCFIX_SHARED_TARGET} PROPERTIES PREFIX "" RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}")
foreach(_command asyncfix_cli asyncfix_lsp_bin)
  set_target_properties(${_command} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}")
endforeach()

# What the py3-none-win_amd64 wheel is made of (packaging/pep517, which reads
# ASYNCFIX_WINDOWS_BUILD to leave out the man pages): the commands (component bin, to the
# environment's Scripts), the manual beside them (share/doc/asyncfix: the rule pages' links find
# it from the program's directory), and the Python package with asyncfix.dll (component python).
set(ASYNCFIX_WINDOWS_BUILD ON CACHE INTERNAL "A Windows build: no man pages in its wheel")
include(GNUInstallDirs)
install(TARGETS asyncfix_cli asyncfix_lsp_bin RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT bin)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT bin)
add_subdirectory(python)

if(ASYNCFIX_BUILD_TESTS)
  enable_testing()
  add_subdirectory(tests/windows)
endif()
