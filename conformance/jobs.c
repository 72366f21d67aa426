/* jobs.c — a run's lines shared out among worker processes (see jobs.h). */
#define _GNU_SOURCE
#include "jobs.h"
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { MAX_JOBS = 64 };

int jobs_available(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)n : 1;
}

/* What the workers share, per file: the next line to take, and whether the
 * file has ended (a line stopped it, or the parent did) */
typedef struct Shared {
  atomic_size_t next;
  atomic_int stop;
} Shared;

/* A line's result on a pipe: this head, then counts, out and err. With
 * JOB_END it says only that the file has `index` lines. */
typedef struct RecordHead {
  uint64_t file, index;
  uint32_t flags, out_len, err_len, pad;
} RecordHead;

/* ---- the workers ---- */

static bool write_all(int fd, const void *p, size_t n) {
  const char *s = p;
  while (n) {
    ssize_t w = write(fd, s, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    s += w, n -= (size_t)w;
  }
  return true;
}

/* A worker's results not yet written to its pipe: written in batches (a
 * write per result would wake the parent once per line) */
typedef struct Outbox {
  int fd;
  char *buf;
  size_t len, cap;
  double flushed; /* when it was last written */
  bool broken;    /* the parent is gone */
} Outbox;

enum { OUTBOX_BYTES = 1 << 16 };
static const double OUTBOX_SECONDS = 0.05; /* the parent hears at least this often */

static double seconds_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void outbox_flush(Outbox *b) {
  if (!b->broken && b->len && !write_all(b->fd, b->buf, b->len)) b->broken = true;
  b->len = 0;
  b->flushed = seconds_now();
}

/* One result queued; false when the parent is gone */
static bool send_record(Outbox *b, size_t file, size_t index, unsigned flags, const void *counts, size_t counts_size,
                        const char *out, size_t out_len, const char *err, size_t err_len) {
  if (out_len > UINT32_MAX || err_len > UINT32_MAX) return false;
  RecordHead h = {file, index, flags, (uint32_t)out_len, (uint32_t)err_len, 0};
  size_t n = sizeof h + counts_size + out_len + err_len;
  if (b->len + n > b->cap) {
    while (b->len + n > b->cap) b->cap = b->cap ? 2 * b->cap : 2 * OUTBOX_BYTES;
    if (!(b->buf = realloc(b->buf, b->cap))) abort();
  }
  char *at = b->buf + b->len;
  memcpy(at, &h, sizeof h);
  memcpy(at + sizeof h, counts, counts_size);
  if (out_len) memcpy(at + sizeof h + counts_size, out, out_len);
  if (err_len) memcpy(at + sizeof h + counts_size + out_len, err, err_len);
  b->len += n;
  if (b->len >= OUTBOX_BYTES || seconds_now() - b->flushed >= OUTBOX_SECONDS) outbox_flush(b);
  return !b->broken;
}

/* What a call of open or work printed, and the counts it changed */
typedef struct Output {
  char *out, *err;
  size_t out_len, err_len;
  FILE *fo, *fe;
} Output;

static void output_begin(Output *o, void *counts, size_t counts_size) {
  *o = (Output){0};
  o->fo = open_memstream(&o->out, &o->out_len);
  o->fe = open_memstream(&o->err, &o->err_len);
  if (!o->fo || !o->fe) abort();
  memset(counts, 0, counts_size);
}

static void output_end(Output *o) {
  fclose(o->fo);
  fclose(o->fe);
}

static void output_free(Output *o) {
  free(o->out);
  free(o->err);
}

/* The lines of file f this worker takes; false when the parent is gone */
static bool worker_file(const JobsSpec *spec, Shared *sh, size_t f, Outbox *box, void *counts) {
  CaptureReader r;
  Output o;
  output_begin(&o, counts, spec->counts_size);
  bool opened = spec->open(spec->ctx, f, &r, o.fo, counts);
  output_end(&o);
  if (!opened) { /* every worker says so; the parent applies it once */
    bool sent = send_record(box, f, 0, JOB_STOP, counts, spec->counts_size, o.out, o.out_len, o.err, o.err_len);
    output_free(&o);
    return sent;
  }
  output_free(&o);
  bool sent = true;
  size_t at = 0; /* the index of the line r reads next */
  while (sent && !atomic_load(&sh[f].stop)) {
    size_t k = atomic_fetch_add(&sh[f].next, 1);
    while (at < k && capture_reader_skip(&r)) at++;
    if (at < k) { sent = send_record(box, f, at, JOB_END, counts, spec->counts_size, NULL, 0, NULL, 0); break; }
    output_begin(&o, counts, spec->counts_size);
    r.not_json = 0; /* the parent counts them, in line order */
    unsigned flags = spec->work(spec->ctx, f, &r, o.fo, o.fe, counts);
    output_end(&o);
    if (flags & JOB_END) {
      output_free(&o);
      sent = send_record(box, f, at, JOB_END, counts, spec->counts_size, NULL, 0, NULL, 0);
      break;
    }
    at++;
    if (r.not_json) flags |= JOB_NOT_JSON;
    if (r.pos < r.len) flags |= JOB_MORE;
    sent = send_record(box, f, k, flags, counts, spec->counts_size, o.out, o.out_len, o.err, o.err_len);
    output_free(&o);
    if (flags & JOB_STOP) atomic_store(&sh[f].stop, 1);
  }
  capture_reader_close(&r);
  return sent;
}

static _Noreturn void worker(const JobsSpec *spec, Shared *sh, int fd) {
  void *counts = malloc(spec->counts_size ? spec->counts_size : 1);
  if (!counts) abort();
  Outbox box = {.fd = fd, .flushed = seconds_now()};
  for (size_t f = 0; f < spec->nfiles; f++)
    if (!(spec->alone && spec->alone[f]) && !atomic_load(&sh[f].stop) && !worker_file(spec, sh, f, &box, counts)) break;
  outbox_flush(&box);
  _exit(0);
}

/* ---- the parent ---- */

/* The bytes read from one worker and not yet taken */
typedef struct Inbox { char *buf; size_t len, cap; bool open; } Inbox;

/* A file's results that have come, until applied: rec[index] */
typedef struct Pending { char **rec; size_t cap; size_t lines; /* SIZE_MAX until known */ } Pending;

typedef struct Parent {
  const JobsSpec *spec;
  Shared *sh;
  Pending *files;
  size_t file, want;   /* the next result to apply: line `want` of `file` */
  CaptureReader count; /* the file's lines not JSON in a row (no data) */
} Parent;

static void inbox_read(Inbox *b, int fd) {
  if (b->cap - b->len < 65536) {
    b->cap = b->cap ? 2 * b->cap : 131072;
    if (!(b->buf = realloc(b->buf, b->cap))) abort();
  }
  ssize_t n = read(fd, b->buf + b->len, b->cap - b->len);
  if (n < 0 && errno == EINTR) return;
  if (n <= 0) b->open = false;
  else b->len += (size_t)n;
}

static void keep_record(Parent *p, const RecordHead *h, const char *bytes, size_t n) {
  if (h->file >= p->spec->nfiles || h->file < p->file || (h->file == p->file && h->index < p->want)) return; /* applied */
  Pending *pf = &p->files[h->file];
  if (h->flags & JOB_END) {
    pf->lines = h->index;
    return;
  }
  if (h->index >= pf->cap) {
    size_t cap = pf->cap ? pf->cap : 64;
    while (cap <= h->index) cap *= 2;
    if (!(pf->rec = realloc(pf->rec, cap * sizeof *pf->rec))) abort();
    memset(pf->rec + pf->cap, 0, (cap - pf->cap) * sizeof *pf->rec);
    pf->cap = cap;
  }
  if (pf->rec[h->index]) return; /* the same line from another worker (a file that cannot be read) */
  char *rec = malloc(n);
  if (!rec) abort();
  memcpy(rec, bytes, n);
  pf->rec[h->index] = rec;
}

/* Whole records out of b */
static void inbox_take(Parent *p, Inbox *b) {
  size_t at = 0, counts_size = p->spec->counts_size;
  while (b->len - at >= sizeof(RecordHead)) {
    RecordHead h;
    memcpy(&h, b->buf + at, sizeof h);
    size_t n = sizeof h + counts_size + h.out_len + h.err_len;
    if (b->len - at < n) break;
    keep_record(p, &h, b->buf + at, n);
    at += n;
  }
  memmove(b->buf, b->buf + at, b->len - at);
  b->len -= at;
}

static void next_file(Parent *p) {
  Pending *pf = &p->files[p->file];
  atomic_store(&p->sh[p->file].stop, 1);
  for (size_t i = 0; i < pf->cap; i++) free(pf->rec[i]);
  free(pf->rec);
  pf->rec = NULL, pf->cap = 0;
  p->file++, p->want = 0;
  if (p->file < p->spec->nfiles) p->count = (CaptureReader){.path = p->spec->paths[p->file]};
}

/* One result applied; false when it ends its file */
static bool apply_record(Parent *p, char *rec) {
  const JobsSpec *spec = p->spec;
  RecordHead h;
  memcpy(&h, rec, sizeof h);
  const char *body = rec + sizeof h;
  JobResult res = {h.file, h.index, h.flags, body, body + spec->counts_size, body + spec->counts_size + h.out_len,
                   h.out_len, h.err_len};
  capture_reader_count(&p->count, h.flags & JOB_NOT_JSON, h.flags & JOB_MORE);
  return spec->apply(spec->ctx, &p->count, &res) && !(h.flags & JOB_STOP);
}

/* The results that have come, applied in order as far as they go */
static void apply_ready(Parent *p) {
  while (p->file < p->spec->nfiles) {
    if (p->spec->alone && p->spec->alone[p->file]) { /* the parent's own, in its turn */
      p->spec->rest(p->spec->ctx, p->file, 0, &p->count);
      next_file(p);
      continue;
    }
    Pending *pf = &p->files[p->file];
    char *rec = p->want < pf->cap ? pf->rec[p->want] : NULL;
    if (rec) {
      pf->rec[p->want++] = NULL;
      bool more = apply_record(p, rec);
      free(rec);
      if (!more) next_file(p);
    } else if (pf->lines == p->want) {
      next_file(p);
    } else {
      return;
    }
  }
}

/* Workers started; 0 when none could be */
static int start_workers(const JobsSpec *spec, Shared *sh, pid_t *pids, struct pollfd *fds) {
  int n = spec->jobs > MAX_JOBS ? MAX_JOBS : spec->jobs, started = 0;
  fflush(NULL); /* nothing buffered is written twice */
  for (int w = 0; w < n; w++) {
    int p[2];
    if (pipe(p) != 0) break;
    pid_t pid = fork();
    if (pid < 0) {
      close(p[0]);
      close(p[1]);
      break;
    }
    if (pid == 0) {
      close(p[0]);
      for (int k = 0; k < started; k++) close(fds[k].fd);
      worker(spec, sh, p[1]);
    }
    close(p[1]);
    pids[started] = pid;
    fds[started++] = (struct pollfd){.fd = p[0], .events = POLLIN};
  }
  return started;
}

/* Every result read and applied until all the workers' pipes are closed */
static void collect(Parent *p, struct pollfd *fds, int started) {
  Inbox box[MAX_JOBS];
  for (int w = 0; w < started; w++) box[w] = (Inbox){NULL, 0, 0, true};
  for (int left = started; left > 0;) {
    if (poll(fds, (nfds_t)started, -1) < 0 && errno != EINTR) break;
    for (int w = 0; w < started; w++) {
      if (!box[w].open || !(fds[w].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      inbox_read(&box[w], fds[w].fd);
      inbox_take(p, &box[w]);
      if (!box[w].open) {
        close(fds[w].fd);
        fds[w].fd = -1;
        left--;
      }
    }
    apply_ready(p);
  }
  for (int w = 0; w < started; w++) free(box[w].buf);
}

void jobs_run(const JobsSpec *spec) {
  size_t nfiles = spec->nfiles;
  Shared *sh = mmap(NULL, (nfiles ? nfiles : 1) * sizeof *sh, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  Parent p = {spec, sh == MAP_FAILED ? NULL : sh, calloc(nfiles ? nfiles : 1, sizeof(Pending)), 0, 0, {0}};
  if (!p.files) abort();
  for (size_t f = 0; f < nfiles; f++) p.files[f].lines = SIZE_MAX;
  if (nfiles) p.count = (CaptureReader){.path = spec->paths[0]};
  pid_t pids[MAX_JOBS];
  struct pollfd fds[MAX_JOBS];
  int started = 0;
  if (p.sh) {
    for (size_t f = 0; f < nfiles; f++) atomic_init(&sh[f].next, 0), atomic_init(&sh[f].stop, 0);
    started = start_workers(spec, sh, pids, fds);
  }
  collect(&p, fds, started);
  bool ended = true;
  for (int w = 0; w < started; w++) {
    int status = 0;
    while (waitpid(pids[w], &status, 0) < 0 && errno == EINTR) {}
    ended = ended && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  if (started && !ended && p.file < nfiles)
    fprintf(stderr, "tsched: a worker process ended early; the rest of %s on is replayed by the main process\n",
            spec->paths[p.file]);
  if (p.file < nfiles) { /* what the workers did not do (none started, or one ended early) */
    spec->rest(spec->ctx, p.file, p.want, &p.count);
    for (size_t f = p.file + 1; f < nfiles; f++) spec->rest(spec->ctx, f, 0, &(CaptureReader){.path = spec->paths[f]});
  }
  for (size_t f = 0; f < nfiles; f++) {
    for (size_t i = 0; i < p.files[f].cap; i++) free(p.files[f].rec[i]);
    free(p.files[f].rec);
  }
  free(p.files);
  if (p.sh) munmap(sh, (nfiles ? nfiles : 1) * sizeof *sh);
}
