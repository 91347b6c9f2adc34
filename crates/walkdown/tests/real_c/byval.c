/* A struct passed by value is the callee's own copy: writing it must not
   change the caller's object (LLVM passes it `byval`). */
#include <stdio.h>
#include <stdlib.h>
void reach_error(void) { abort(); }
struct S { int a[8]; long tag; };
static int clobber(struct S s) { s.a[3] = 99; s.tag = -1; return s.a[3] + s.a[0]; }
int main(void) {
  struct S s = { {1, 2, 3, 4, 5, 6, 7, 8}, 42 };
  int r = clobber(s);
  if (s.a[3] != 4 || s.tag != 42) reach_error();
  printf("%d %d %ld\n", r, s.a[3], s.tag);
  return 0;
}
