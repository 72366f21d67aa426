#include <stdio.h>
int cmd_diff(int argc, char **argv) { (void)argc; (void)argv; fprintf(stderr, "not yet\n"); return 2; }
