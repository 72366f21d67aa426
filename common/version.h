/* version.h — the three tinygrad generations tsched models. Where semantics
 * differ between them, code takes a TgVersion and switches on it by name. */
#ifndef TSCHED_VERSION_H
#define TSCHED_VERSION_H
typedef enum { TG_0_9_1 = 0, TG_0_10_0 = 1, TG_0_10_2 = 2, TG_NVERSIONS = 3 } TgVersion;
/* "0.9.1" -> TG_0_9_1 ...; returns -1 for an unknown string. */
int tg_version_parse(const char *s);
const char *tg_version_name(TgVersion v);
#endif
