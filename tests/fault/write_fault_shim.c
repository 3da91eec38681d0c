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
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
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
