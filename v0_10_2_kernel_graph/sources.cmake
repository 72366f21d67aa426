# Sources of generation 0.10.2, added to the tsched_core library.
foreach(src entry st uops walk symbolic tensor_rules reorder_view group kernel_rules kernel kernel_ast tlsf bufferize schedule_items schedule memory decode encode explain)
  list(APPEND TSCHED_GENERATION_SOURCES ${CMAKE_CURRENT_LIST_DIR}/${src}.c)
endforeach()
