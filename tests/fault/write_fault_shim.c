// An LD_PRELOAD shim that makes writes to chosen files fail, for the fault tests (fault_tests.sh).
// Only writes to a file whose path ends with ZONEODE_FAULT_PATH (default ".partial") fail, so the
// program's own messages still reach stdout and stderr. Environment:
//   ZONEODE_FAULT_RANK   fail only in this MPI rank (OMPI_COMM_WORLD_RANK / PMI_RANK; default: any)
//   ZONEODE_FAULT_PATH   the end of the paths to fail (default ".partial"; a suffix, so that Open
//                        MPI's own files named after the data file are left alone)
//   ZONEODE_FAULT_AFTER  let this many matching writes succeed first (default 0)
//   ZONEODE_FAULT_ERRNO  EIO (default) or ENOSPC
//   ZONEODE_FAULT_OFFSET fail only positioned writes at this offset (0: the superblock, which
//                        HDF5 writes when it closes the file)
// Each injected failure is counted in the file ZONEODE_FAULT_LOG, when set (one line each).
// Issue 18 adds what one rank alone may see on a cluster, and a signal before the handlers:
//   ZONEODE_FAULT_READONLY_DIR  files created in this folder fail with EROFS (open with a write
//                        flag, creat, mkstemp): a folder mounted read-only on one node
//   ZONEODE_FAULT_SWAP   "FROM:TO": opening exactly FROM opens TO instead: a node-local file of the
//                        same name with other content
//   ZONEODE_FAULT_SIGNAL_IN_MPI_INIT  USR1, TERM or INT: raised at the start of MPI_Init(_thread),
//                        the half second before a run installed its handlers (ranks: all, or
//                        ZONEODE_FAULT_RANK)
// Issue 31: a signal earlier still, and the system's reason on a full disk:
//   ZONEODE_FAULT_SIGNAL_IN_CONSTRUCTOR  USR1, TERM or INT: raised by this library's constructor,
//                        among the shared libraries' constructors (Open MPI's, HDF5's), before main;
//                        give it to the ranks alone (mpiexec -x): a singleton run's Open MPI daemon
//                        would inherit it and die of it
//   ZONEODE_FAULT_SIGNAL_IN_LOADER  USR1, TERM or INT: raised while the dynamic loader starts the
//                        program, before it maps the program's libraries (the shim given as
//                        LD_AUDIT, not LD_PRELOAD: its la_version); to the ranks alone, as above
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <fcntl.h>
#include <link.h>  // LAV_CURRENT
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void*, size_t);
typedef ssize_t (*pwrite_fn)(int, const void*, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec*, int);
typedef ssize_t (*pwritev_fn)(int, const struct iovec*, int, off_t);

static long matching_writes = 0;

static int this_rank(void) {
  const char* rank = getenv("OMPI_COMM_WORLD_RANK");
  if (rank == NULL) rank = getenv("PMI_RANK");
  return rank == NULL ? 0 : atoi(rank);
}

static void record(const char* path) {
  const char* log = getenv("ZONEODE_FAULT_LOG");
  if (log == NULL) return;
  // open/write through libc directly: our own write() would consider this file too.
  write_fn real_write = (write_fn)dlsym(RTLD_NEXT, "write");
  int fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0644);
  if (fd < 0) return;
  char line[4200];
  int n = snprintf(line, sizeof line, "rank %d: %s\n", this_rank(), path);
  if (n > 0) real_write(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
  close(fd);
}

// True when this write to `fd` is to fail (errno set).
static int inject(int fd, long long offset) {
  const char* wanted_rank = getenv("ZONEODE_FAULT_RANK");
  if (wanted_rank != NULL && *wanted_rank != '\0' && atoi(wanted_rank) != this_rank()) return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t length = readlink(link, path, sizeof path - 1);
  if (length <= 0) return 0;
  path[length] = '\0';
  const char* pattern = getenv("ZONEODE_FAULT_PATH");
  if (pattern == NULL || *pattern == '\0') pattern = ".partial";
  const size_t pattern_length = strlen(pattern);
  if ((size_t)length < pattern_length || strcmp(path + length - pattern_length, pattern) != 0) return 0;
  const char* at = getenv("ZONEODE_FAULT_OFFSET");
  if (at != NULL && *at != '\0' && atoll(at) != offset) return 0;
  const char* after = getenv("ZONEODE_FAULT_AFTER");
  if (matching_writes++ < (after ? atol(after) : 0)) return 0;
  const char* code = getenv("ZONEODE_FAULT_ERRNO");
  errno = (code != NULL && strcmp(code, "ENOSPC") == 0) ? ENOSPC : EIO;
  const int saved = errno;
  record(path);
  errno = saved;
  return 1;
}

#define REAL(name, type) static type real = NULL; if (real == NULL) real = (type)dlsym(RTLD_NEXT, name)

ssize_t write(int fd, const void* buffer, size_t count) {
  REAL("write", write_fn);
  if (inject(fd, -1)) return -1;
  return real(fd, buffer, count);
}
ssize_t pwrite(int fd, const void* buffer, size_t count, off_t offset) {
  REAL("pwrite", pwrite_fn);
  if (inject(fd, (long long)offset)) return -1;
  return real(fd, buffer, count, offset);
}
ssize_t pwrite64(int fd, const void* buffer, size_t count, off_t offset) {
  REAL("pwrite64", pwrite_fn);
  if (inject(fd, (long long)offset)) return -1;
  return real(fd, buffer, count, offset);
}
ssize_t writev(int fd, const struct iovec* vector, int count) {
  REAL("writev", writev_fn);
  if (inject(fd, -1)) return -1;
  return real(fd, vector, count);
}
ssize_t pwritev(int fd, const struct iovec* vector, int count, off_t offset) {
  REAL("pwritev", pwritev_fn);
  if (inject(fd, (long long)offset)) return -1;
  return real(fd, vector, count, offset);
}
ssize_t pwritev64(int fd, const struct iovec* vector, int count, off_t offset) {
  REAL("pwritev64", pwritev_fn);
  if (inject(fd, (long long)offset)) return -1;
  return real(fd, vector, count, offset);
}

// ---- Issue 18: what one rank alone sees ----

static int fault_rank_here(void) {
  const char* wanted_rank = getenv("ZONEODE_FAULT_RANK");
  return wanted_rank == NULL || *wanted_rank == '\0' || atoi(wanted_rank) == this_rank();
}

// True when a file at `path` (created or opened for writing) is in ZONEODE_FAULT_READONLY_DIR.
static int readonly_here(const char* path, int flags) {
  const char* dir = getenv("ZONEODE_FAULT_READONLY_DIR");
  if (dir == NULL || *dir == '\0' || path == NULL || !fault_rank_here()) return 0;
  if ((flags & (O_WRONLY | O_RDWR | O_CREAT | O_TRUNC)) == 0) return 0;
  char absolute[4096];
  if (path[0] != '/') {
    if (getcwd(absolute, sizeof absolute - 1) == NULL) return 0;
    strncat(absolute, "/", sizeof absolute - strlen(absolute) - 1);
    strncat(absolute, path, sizeof absolute - strlen(absolute) - 1);
    path = absolute;
  }
  const size_t length = strlen(dir);
  return strncmp(path, dir, length) == 0 && (path[length] == '/' || path[length] == '\0');
}

// ZONEODE_FAULT_SWAP's TO when `path` is its FROM, else `path`.
static const char* swapped(const char* path) {
  static char from[4096], to[4096];
  const char* swap = getenv("ZONEODE_FAULT_SWAP");
  if (swap == NULL || path == NULL || !fault_rank_here()) return path;
  const char* colon = strchr(swap, ':');
  if (colon == NULL || (size_t)(colon - swap) >= sizeof from) return path;
  memcpy(from, swap, (size_t)(colon - swap));
  from[colon - swap] = '\0';
  snprintf(to, sizeof to, "%s", colon + 1);
  return strcmp(path, from) == 0 ? to : path;
}

typedef int (*open_fn)(const char*, int, ...);
typedef int (*openat_fn)(int, const char*, int, ...);
typedef int (*mkstemp_fn)(char*);

#define OPEN_LIKE(name)                                                   \
  int name(const char* path, int flags, ...) {                           \
    REAL(#name, open_fn);                                                 \
    mode_t mode = 0;                                                      \
    if (flags & (O_CREAT | O_TMPFILE)) {                                  \
      va_list args;                                                       \
      va_start(args, flags);                                              \
      mode = (mode_t)va_arg(args, int);                                   \
      va_end(args);                                                       \
    }                                                                     \
    if (readonly_here(path, flags)) {                                     \
      record(path);                                                       \
      errno = EROFS;                                                      \
      return -1;                                                          \
    }                                                                     \
    return real(swapped(path), flags, mode);                             \
  }
OPEN_LIKE(open)
OPEN_LIKE(open64)

#define OPENAT_LIKE(name)                                                 \
  int name(int folder, const char* path, int flags, ...) {               \
    REAL(#name, openat_fn);                                               \
    mode_t mode = 0;                                                      \
    if (flags & (O_CREAT | O_TMPFILE)) {                                  \
      va_list args;                                                       \
      va_start(args, flags);                                              \
      mode = (mode_t)va_arg(args, int);                                   \
      va_end(args);                                                       \
    }                                                                     \
    if (folder == AT_FDCWD && readonly_here(path, flags)) {               \
      record(path);                                                       \
      errno = EROFS;                                                      \
      return -1;                                                          \
    }                                                                     \
    return real(folder, folder == AT_FDCWD ? swapped(path) : path, flags, mode); \
  }
OPENAT_LIKE(openat)
OPENAT_LIKE(openat64)

#define MKSTEMP_LIKE(name)                                                \
  int name(char* template_path) {                                         \
    REAL(#name, mkstemp_fn);                                              \
    if (readonly_here(template_path, O_CREAT)) {                          \
      record(template_path);                                              \
      errno = EROFS;                                                      \
      return -1;                                                          \
    }                                                                     \
    return real(template_path);                                           \
  }
MKSTEMP_LIKE(mkstemp)
MKSTEMP_LIKE(mkstemp64)

// ---- Issue 18: a signal in MPI_Init; issue 31: earlier still ----

// Raises the signal that the environment variable `variable` names (USR1, TERM or INT), if set
// and on this rank.
static void raise_named_signal(const char* variable) {
  const char* name = getenv(variable);
  if (name == NULL || *name == '\0' || !fault_rank_here()) return;
  raise(strcmp(name, "TERM") == 0 ? SIGTERM : strcmp(name, "INT") == 0 ? SIGINT : SIGUSR1);
}

static void signal_in_mpi_init(void) { raise_named_signal("ZONEODE_FAULT_SIGNAL_IN_MPI_INIT"); }

__attribute__((constructor)) static void signal_in_constructor(void) {
  raise_named_signal("ZONEODE_FAULT_SIGNAL_IN_CONSTRUCTOR");
}

// The dynamic loader calls this first where the shim is given as LD_AUDIT, before it maps the
// program's own libraries and before any code of the program's runs.
unsigned int la_version(unsigned int version) {
  (void)version;
  raise_named_signal("ZONEODE_FAULT_SIGNAL_IN_LOADER");
  return LAV_CURRENT;
}

typedef int (*mpi_init_fn)(int*, char***);
typedef int (*mpi_init_thread_fn)(int*, char***, int, int*);

int MPI_Init(int* argc, char*** argv) {
  REAL("MPI_Init", mpi_init_fn);
  signal_in_mpi_init();
  return real(argc, argv);
}
int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  REAL("MPI_Init_thread", mpi_init_thread_fn);
  signal_in_mpi_init();
  return real(argc, argv, required, provided);
}
