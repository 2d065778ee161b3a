# What the Windows cross build makes beyond the commands (included from the top-level
# CMakeLists.txt; docs/windows.md): asyncfix.dll, and the tests that run them all under wine64.

# The DLL: the library's C and C++ API (ASYNCFIX_API is __declspec(dllexport) while it is built),
# named as the Python module looks for it (python/asyncfix/_capi.py), with no `lib` prefix; its
# import library is libasyncfix.dll.a.
set_target_properties(${ASYNCFIX_SHARED_TARGET} PROPERTIES PREFIX "" RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}")
foreach(_command asyncfix_cli asyncfix_lsp_bin)
  set_target_properties(${_command} PROPERTIES RUNTIME_OUTPUT_DIRECTORY "${PROJECT_BINARY_DIR}")
endforeach()

if(ASYNCFIX_BUILD_TESTS)
  enable_testing()
  add_subdirectory(tests/windows)
endif()
