# Adds the target hostoffload-capi-threads (capi_threads.c) to a build of the
# project, for tools/sanitize.sh, which passes this file as
# CMAKE_PROJECT_hostoffload_INCLUDE: CMake reads it right after
# project(hostoffload), and the deferred call adds the target once the top
# CMakeLists.txt has found MLIR and defined the libraries, in its scope.
set(hostoffload_capi_threads_source "${CMAKE_CURRENT_LIST_DIR}/capi_threads.c")
cmake_language(DEFER CALL hostoffload_add_capi_threads)

function(hostoffload_add_capi_threads)
  add_executable(hostoffload-capi-threads "${hostoffload_capi_threads_source}")
  set_target_properties(hostoffload-capi-threads PROPERTIES
    LINKER_LANGUAGE CXX
    RUNTIME_OUTPUT_DIRECTORY "${CMAKE_BINARY_DIR}/bin")
  target_link_libraries(hostoffload-capi-threads PRIVATE
    HostOffloadCAPI
    MLIRCAPIIR)
  # The parser wraps, linked as into the Python extension.
  if(HOSTOFFLOAD_FAST_PATHS)
    target_link_libraries(hostoffload-capi-threads PRIVATE
      HostOffloadParserWraps)
  endif()
endfunction()
