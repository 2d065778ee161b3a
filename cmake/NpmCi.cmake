# asyncfix_npm_ci(SOURCE_DIR BUILD_DIR WHAT HINT): fetch the packages pinned in
# SOURCE_DIR/package-lock.json into BUILD_DIR/node_modules with `npm ci` (npm verifies every
# tarball's sha512; .npmrc disables install scripts). Runs again only when the lockfile changed,
# so a re-configure needs no network. WHAT names the packages in messages; HINT says how to do
# without npm.
function(asyncfix_npm_ci source_dir build_dir what hint)
  find_program(ASYNCFIX_NPM npm)
  if(NOT ASYNCFIX_NPM)
    message(FATAL_ERROR
      "asyncfix needs npm to fetch ${what} (${source_dir}/package-lock.json).\n"
      "Install it with:  sudo apt-get install npm\n"
      "or ${hint}")
  endif()
  file(MAKE_DIRECTORY "${build_dir}")
  foreach(f package.json package-lock.json .npmrc)
    configure_file("${source_dir}/${f}" "${build_dir}/${f}" COPYONLY)
  endforeach()
  file(SHA256 "${source_dir}/package-lock.json" lock_hash)
  set(stamp "${build_dir}/node_modules/.asyncfix-stamp")
  set(old_hash "")
  if(EXISTS "${stamp}")
    file(READ "${stamp}" old_hash)
  endif()
  if(NOT "${old_hash}" STREQUAL "${lock_hash}")
    message(STATUS "asyncfix: npm ci (${what}) in ${build_dir}")
    execute_process(
      COMMAND "${ASYNCFIX_NPM}" ci --ignore-scripts --no-audit --no-fund
      WORKING_DIRECTORY "${build_dir}"
      RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
    if(NOT rc EQUAL 0)
      message(FATAL_ERROR "asyncfix: `npm ci` failed in ${build_dir} (exit ${rc}):\n${out}\n${err}")
    endif()
    file(WRITE "${stamp}" "${lock_hash}")
  endif()
endfunction()
