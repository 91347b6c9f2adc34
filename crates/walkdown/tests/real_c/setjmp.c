/* setjmp/longjmp as real code uses them: a non-local exit from deep
   recursion (with stack objects in between), retrying through a setjmp
   point several times, a longjmp value of 0 arriving as 1, and a jmp_buf
   set again in a helper that is still running. */
#include <setjmp.h>
#include <stdio.h>
static jmp_buf on_error;
static int depth_reached;
static int descend(int n) {
  char scratch[64];
  scratch[n % 64] = (char)n;
  depth_reached = n;
  if (n == 25) longjmp(on_error, 7);
  return descend(n + 1) + scratch[n % 64];
}
static int parse(jmp_buf env, const char *s) {
  int v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') longjmp(env, 0);
    v = v * 10 + (*s - '0');
  }
  return v;
}
static int guarded(const char *s) {
  jmp_buf env;
  volatile int result = -1;
  int code = setjmp(env);
  if (code == 0) result = parse(env, s);
  else result = -code;
  return result;
}
int main(void) {
  volatile int tries = 0;
  int code = setjmp(on_error);
  if (code == 0) {
    descend(0);
    puts("not reached");
  }
  tries++;
  if (tries < 3) longjmp(on_error, tries + 10);
  printf("code %d depth %d tries %d\n", code, depth_reached, tries);
  printf("%d %d\n", guarded("1234"), guarded("12x4"));
  return code;
}
