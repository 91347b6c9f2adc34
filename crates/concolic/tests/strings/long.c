/* Long input strings measured in a loop: the branch points of the calls
   are capped per call and per calling block. */
#include <string.h>
extern char __VERIFIER_nondet_char(void);

char buf[10][101];

int main(void) {
  for (int j = 0; j < 10; j++)
    for (int i = 0; i < 100; i++)
      buf[j][i] = __VERIFIER_nondet_char();
  size_t total = 0;
  for (int j = 0; j < 10; j++)
    total += strlen(buf[j]);
  return total == 1000;
}
