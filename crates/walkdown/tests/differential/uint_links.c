// A list whose links are kept in unsigned int, as programs written for
// ILP32 do (with malloc declared with a 32-bit size). Under ILP32 it sums
// the list and reaches reach_error when the sum is 3; under LP64 a link
// loses the upper half of its pointer (the heap lies above 4 GiB), so
// natively the first access through a link faults before reach_error,
// and the interpreter must fault there too.
extern void *malloc(unsigned int size);
extern int __VERIFIER_nondet_int(void);
extern void reach_error(void);

struct node {
  unsigned int next;
  int value;
};

int main(void) {
  unsigned int head = 0;
  int n = __VERIFIER_nondet_int();
  if (n < 0 || n > 4)
    n = 3;
  for (int i = 0; i < n; i++) {
    struct node *p = malloc(sizeof(struct node));
    p->value = i;
    p->next = head;
    head = (unsigned int)(unsigned long)p;
  }
  int sum = 0;
  for (unsigned int c = head; c != 0; c = ((struct node *)(unsigned long)c)->next)
    sum += ((struct node *)(unsigned long)c)->value;
  if (sum == 3)
    reach_error();
  return 0;
}
