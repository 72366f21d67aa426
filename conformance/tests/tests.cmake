# Tests, registered in CTest. Unit tests use cmocka.
function(tsched_unit_test name)
  add_executable(${name} ${CMAKE_SOURCE_DIR}/conformance/tests/${name}.c)
  target_link_libraries(${name} PRIVATE tsched_core ${CMOCKA_LIBRARY})
  add_test(NAME ${name} COMMAND ${name} ${ARGN})
endfunction()

tsched_unit_test(test_core)

# The main job as a test: replay the bundled corpus; any fail or read error fails.
add_test(NAME replay_corpus COMMAND tsched replay ${CMAKE_SOURCE_DIR}/conformance/corpus)
