/* Comparisons of global addresses that clang leaves as constant
   expressions (`icmp eq (ptr @a, ptr @b)`), in code and in initializers,
   as Csmith writes them. */
#include <stdio.h>
static int a[5][3];
static int b[4][3];
static int *p[2];
static int eq1 = (&a[3][1] == &b[0][2]);
static int ne1 = (&a[1][1] != &a[1][1]);
static long same = (&a[2][0] == &a[1][3]);
static int nested = ((&a[0][1] != &b[1][1]) <= (&p[1] == &p[0])) + 5;
int main(void) {
  int x = (&a[3][1] == &b[0][2]);
  int y = (&a[4][2] != &b[3][1]) * 7;
  int z = ((&p[0] == &p[1]) | (&a[0][0] == &a[0][0])) ^ 2;
  long w = (&a[1][0] == &a[0][3]) + (&b[2][2] < &b[3][0]);
  printf("%d %d %ld %d | %d %d %d %ld\n", eq1, ne1, same, nested, x, y, z, w);
  return x + y + z;
}
