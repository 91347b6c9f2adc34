/* The second file of main.c's program: the bug is here. */
#include "other.h"

extern void reach_error(void);

static int clamp(int v) {
  if (v > 100)
    return 100;
  return v;
}

int check_pair(int a, int b) {
  int c = clamp(b);
  if (c == 42 && a == 17) {
    reach_error();
    return 1;
  }
  return 0;
}
