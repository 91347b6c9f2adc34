/* A program that, on some inputs, tries what a sandboxed native run must
 * not do (crates/walkdown/tests/sandbox.rs): write a file in the user's
 * home and in /tmp, delete a file it was not given, connect to 127.0.0.1,
 * fork in a loop, write a large file; one input does all but the last and
 * then reaches the error, so that `check` confirms it natively.
 *
 * Paths and the port come from the environment the test gives walkdown
 * ($HOME, $SANDBOX_FIXTURE_TAG, $SANDBOX_FIXTURE_PORT), so that parallel
 * runs do not meet. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

static const char *env_or(const char *name, const char *otherwise) {
  const char *value = getenv(name);
  return value ? value : otherwise;
}

static void write_file(const char *dir, const char *name) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *file = fopen(path, "w");
  if (file) {
    fputs("written by a native run\n", file);
    fclose(file);
  }
}

static void delete_victim(void) {
  char path[512];
  snprintf(path, sizeof path, "/tmp/wd-sandbox-%s-victim", env_or("SANDBOX_FIXTURE_TAG", "x"));
  unlink(path);
}

static void connect_home(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return;
  struct sockaddr_in address;
  memset(&address, 0, sizeof address);
  address.sin_family = AF_INET;
  address.sin_port = htons((unsigned short)atoi(env_or("SANDBOX_FIXTURE_PORT", "9")));
  address.sin_addr.s_addr = htonl(0x7f000001);
  connect(fd, (struct sockaddr *)&address, sizeof address);
  close(fd);
}

static void fork_loop(void) {
  for (int i = 0; i < 100000; i++) {
    int child = fork();
    if (child < 0)
      break;
    if (child == 0) {
      /* Children stay a while, so that they add up. */
      alarm(3);
      pause();
      _exit(0);
    }
  }
}

static void write_large_file(void) {
  static char block[1 << 20];
  FILE *file = fopen("large.dat", "w");
  if (!file)
    return;
  for (int i = 0; i < 256; i++)
    fwrite(block, 1, sizeof block, file);
  fclose(file);
}

int main(void) {
  char tmp_name[128];
  snprintf(tmp_name, sizeof tmp_name, "wd-sandbox-%s-written", env_or("SANDBOX_FIXTURE_TAG", "x"));
  int action = __VERIFIER_nondet_int();
  if (action == 1)
    write_file(env_or("HOME", "/nonexistent-home"), "wd-sandbox-written");
  else if (action == 2)
    write_file("/tmp", tmp_name);
  else if (action == 3)
    delete_victim();
  else if (action == 4)
    connect_home();
  else if (action == 5)
    fork_loop();
  else if (action == 6)
    write_large_file();
  else if (action == 7) {
    write_file(env_or("HOME", "/nonexistent-home"), "wd-sandbox-written");
    write_file("/tmp", tmp_name);
    delete_victim();
    connect_home();
    fork_loop();
    reach_error();
  }
  return 0;
}
