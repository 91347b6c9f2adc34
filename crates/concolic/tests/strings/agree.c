/* Every string and memory function the concolic engine follows as a byte
   loop, with each result feeding branches: a traced run must take the
   branches the interpreter takes, and its path condition must hold for
   its own inputs (the shadows of results and copied bytes evaluate to the
   values computed). */
#include <string.h>
extern char __VERIFIER_nondet_char(void);
extern int __VERIFIER_nondet_int(void);

static char a[8], b[8];

int main(void) {
  for (int i = 0; i < 7; i++) {
    a[i] = __VERIFIER_nondet_char();
    b[i] = __VERIFIER_nondet_char();
  }
  int k = __VERIFIER_nondet_int() & 7;
  char c = __VERIFIER_nondet_char();
  int r = 0;

  int s = strcmp(a, b);
  if (s < 0)
    r += 1;
  if (s == 'a' - 'x')
    r += 2;
  s = strncmp(a, b, k);
  if (s > 0)
    r += 4;
  if (s == 128)
    r += 8;
  s = memcmp(a, b, k);
  if (s == 0)
    r += 16;
  if (s < -100)
    r += 32;

  size_t n = strlen(a);
  if (n == 3)
    r += 64;
  n = strnlen(b, k);
  if (n == 2)
    r += 128;

  char *p = strchr(a, c);
  if (p && p - a == 1)
    r += 256;
  p = memchr(b, c, k);
  if (p && p - b == 2)
    r += 512;
  p = strrchr(a, c);
  if (p && p - a == 3)
    r += 1024;

  char d[24];
  strcpy(d, a);
  strcat(d, b);
  if (strlen(d) == 5)
    r += 2048;
  if (d[3] == c)
    r += 4096;
  strncpy(d, b, k);
  if (d[1] == 'x')
    r += 8192;
  d[7] = 0;
  strncat(d, a, k);
  if (d[4] == c)
    r += 16384;
  if (strcmp(d, "xa") == 0)
    r += 32768;
  return r;
}
