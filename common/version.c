/* version.c — names of the three tinygrad generations. */
#include "version.h"
#include <string.h>

static const char *const version_names[TG_NVERSIONS] = {"0.9.1", "0.10.0", "0.10.2"};

int tg_version_parse(const char *s) {
  for (int v = 0; v < TG_NVERSIONS; v++)
    if (s && strcmp(s, version_names[v]) == 0) return v;
  return -1;
}

const char *tg_version_name(TgVersion v) {
  return (unsigned)v < TG_NVERSIONS ? version_names[v] : "?";
}
