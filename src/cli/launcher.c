// zoneode's launcher: the `zoneode` that users, mpirun and srun start. It blocks the stop signals
// (SIGTERM, SIGUSR1, SIGINT: cli/signals.hpp) and replaces itself (execv, same pid) with the
// program, zoneode.bin, from its own folder. A blocked signal stays pending across execv; the
// program unblocks the three once its handler is installed (trap_stop_signals), so a stop
// request that arrives while the dynamic loader maps zoneode.bin's shared libraries (49 here),
// or while their constructors or a sanitizer runtime run, is noted like a later one: the run
// stops after its first outer step with a checkpoint and exit 75, not with the default action
// (status 138 for SIGUSR1, no word). Linked statically where the platform allows
// (CMakeLists.txt): no loader window of its own, and LD_PRELOAD / LD_AUDIT libraries load into
// zoneode.bin alone. Plain C, no sanitizer or coverage flags: nothing runs before main but the C
// library's start-up. argv and the environment pass unchanged (argv[0] as given: messages still
// say "zoneode"), but for ZONEODE_LAUNCHER_PID, this process's id (below: a launcher that finds it
// exec'd itself).
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/stop_signal_set.h"

// The program's file name, beside this launcher (CMakeLists.txt: OUTPUT_NAME of zoneode_program).
static const char program_name[] = "zoneode.bin";

int main(int argc, char** argv) {
  (void)argc;
  sigset_t stop_signals;
  zoneode_stop_signal_set(&stop_signals);
  sigprocmask(SIG_BLOCK, &stop_signals, NULL);

  // This launcher's own file (symbolic links resolved: an installed link finds the real folder),
  // not argv[0] nor PATH, which may name something else.
  char path[PATH_MAX];
  ssize_t length = readlink("/proc/self/exe", path, sizeof path);
  if (length <= 0 || (size_t)length >= sizeof path) {
    fprintf(stderr, "zoneode: cannot find the launcher's own folder (/proc/self/exe: %s), so not %s "
            "beside it\n", length < 0 ? strerror(errno) : "path too long", program_name);
    return 127;
  }
  path[length] = '\0';
  char* slash = strrchr(path, '/');
  size_t folder_length = slash == NULL ? 0 : (size_t)(slash - path) + 1;
  if (folder_length + sizeof program_name > sizeof path) {
    fprintf(stderr, "zoneode: the path of %s beside '%s' is too long\n", program_name, path);
    return 127;
  }
  memcpy(path + folder_length, program_name, sizeof program_name);

  // A zoneode.bin that is this launcher again would exec itself for ever, deaf to the stop
  // signals (issue 40). A link to it (symbolic or hard) is the same file; a copy is found on its
  // second start: execv keeps the pid, so finding this process's own pid in the variable set
  // below means this launcher started itself (another process inherits it with another pid).
  static const char started_name[] = "ZONEODE_LAUNCHER_PID";
  char own_pid[32];
  snprintf(own_pid, sizeof own_pid, "%ld", (long)getpid());
  const char* started_by = getenv(started_name);
  struct stat launcher_file, program_file;
  int same_file = stat("/proc/self/exe", &launcher_file) == 0 && stat(path, &program_file) == 0 &&
                  launcher_file.st_dev == program_file.st_dev && launcher_file.st_ino == program_file.st_ino;
  if (same_file || (started_by != NULL && strcmp(started_by, own_pid) == 0)) {
    fprintf(stderr,
            "zoneode: %s is this launcher again (a copy of zoneode or a link to it), not the program: it would start "
            "itself for ever; rebuild or reinstall both (zoneode runs %s from its own folder)\n",
            path, program_name);
    return 126;
  }
  setenv(started_name, own_pid, 1);

  execv(path, argv);
  // 126 where the file is there but cannot be run, 127 where it is missing (the shells' statuses).
  int error = errno;
  fprintf(stderr,
          "zoneode: cannot run the program %s: %s (zoneode is a launcher that runs %s from its own folder; "
          "rebuild or reinstall both)\n",
          path, strerror(error), program_name);
  return error == ENOENT || error == ENOTDIR ? 127 : 126;
}
