# ShapeTracker module (common/view.c, common/shapetracker.c, common/symbolic_node.c, common/symbolic_uop.c) and its test,
# which replays the vectors recorded from tinygrad (conformance/vectors/st-v*.jsonl.gz).
list(APPEND TSCHED_COMMON_SOURCES common/sint.c common/view.c common/shapetracker.c common/symbolic_node.c common/symbolic_uop.c)

add_executable(test_shapetracker ${CMAKE_SOURCE_DIR}/conformance/tests/test_shapetracker.c)
target_link_libraries(test_shapetracker PRIVATE tsched_core ${CMOCKA_LIBRARY} ZLIB::ZLIB)
add_test(NAME test_shapetracker COMMAND test_shapetracker ${CMAKE_SOURCE_DIR}/conformance/vectors)
