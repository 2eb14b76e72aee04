// Pseudo-terminal helpers Glibc hides behind _GNU_SOURCE (used by the interactive tests).
#ifndef SXK_CPTY_H
#define SXK_CPTY_H
#include <sys/types.h>

/// Opens a pty master (O_RDWR|O_NOCTTY|O_CLOEXEC), grants and unlocks it, writes the slave path. Returns fd or -1.
int cpty_open_master(char *slave_path, int slave_path_len);
/// Sets the window size of the terminal open on fd.
int cpty_set_window_size(int fd, unsigned short rows, unsigned short cols);
/// Spawns path with argv/envp in a new session whose fds 0, 1, 2 are the slave (which becomes the controlling tty).
/// Returns 0 and sets *pid, or an errno value.
int cpty_spawn(const char *path, char *const argv[], char *const envp[], const char *slave_path, pid_t *pid);
#endif
