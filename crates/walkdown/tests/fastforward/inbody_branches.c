/* Loops whose bodies branch on the counter: each branch's outcome changes
   at an iteration the jump must stop at. */
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

int main(void) {
  int limit = __VERIFIER_nondet_int();
  int low = 0, mid = 0, eq = 0, high = 0, sw = 0;
  for (int i = -5000; i < 20000; i += 3) {
    if (i < 0) {
      low++;
    } else if (i < limit) {
      mid += 2;
    } else if (i == 7000) {
      eq = 1;
    } else {
      high--;
    }
    switch (i) {
    case 1:
      sw += 10;
      break;
    case 3001:
      sw += 100;
      break;
    default:
      break;
    }
    if (i > limit && i < limit + 4)
      high += 1000;
  }
  signed char s = 100;
  int down = 0;
  while (s > -100) {
    s -= 9;
    down++;
  }
  long long big = 0;
  unsigned steps = 0;
  while (big != 800000) {
    big += 8;
    steps++;
  }
  if (eq && sw == 100 && mid == 0)
    reach_error();
  return (low + mid + high + sw + down + (int)steps) & 0xff;
}
