# Sources of generation 0.10.0, added to the tsched_core library.
list(APPEND TSCHED_GENERATION_SOURCES ${CMAKE_CURRENT_LIST_DIR}/entry.c)
