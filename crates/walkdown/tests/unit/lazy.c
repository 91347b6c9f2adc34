/* Functions that read only part of their input structures: lazy
 * initialization decides a pointer only when the function reads it, so
 * the fields these functions never reach cost no choice. */
struct node { int key; struct node *next; };
struct tree { int key; struct tree *left; struct tree *right; };
/* Many pointers, of which the functions below read one or two. */
struct wide { int tag; struct wide *a; struct wide *b; struct wide *c; struct wide *d; };

/* Reads only l->next->key: deeper fields are never decided. */
int second_key(struct node *l) {
  if (l == 0 || l->next == 0) return -1;
  if (l->next->key > 10) return 1;
  return 0;
}

/* Stops at the first match. */
int find_first(struct node *l, int key) {
  for (int i = 0; l != 0 && i < 3; i++, l = l->next)
    if (l->key == key) return i;
  return -1;
}

/* Follows one branch per level (at most 3 levels: a cycle ends too). */
int tree_contains(struct tree *t, int key) {
  for (int depth = 0; t != 0 && depth < 3; depth++) {
    if (key == t->key) return 1;
    t = key < t->key ? t->left : t->right;
  }
  return 0;
}

/* Reads w->c and, through it, one more pointer. */
int wide_pick(struct wide *w) {
  if (w == 0) return 0;
  if (w->c == 0) return 1;
  if (w->c->tag == 7) return 2;
  if (w->c->d == w) return 3;
  return 4;
}

/* Follows only the d pointers, up to four objects deep. */
int wide_chain(struct wide *w) {
  for (int n = 0; w != 0; n++, w = w->d) {
    if (n == 4) return -2;
    if (w->tag == 7) return n;
  }
  return -1;
}

struct person { int age; char *name; struct person *boss; };

/* Reads the name only of someone over 60; never the boss. */
int elder_initial(struct person *p) {
  if (p == 0) return 0;
  if (p->age > 60 && p->name != 0 && p->name[0] == 'E') return 2;
  return 1;
}

struct pair { struct node *a; struct node *b; };

/* Reads a pointer through a copy of the struct that holds it: the copy
 * carries the unread pointer, and reading it decides the original. */
int copy_read(struct pair *p) {
  if (p == 0) return -1;
  struct pair c = *p;
  if (c.a == 0) return 0;
  if (c.a->key > 5) return 2;
  return 1;
}

/* A struct by value: its pointer fields arrive as parameters, stored into
 * the function's copy; only b is read. */
int pair_by_value(struct pair q) {
  if (q.b == 0) return -1;
  return q.b->key > 3;
}

int main(void) { return 0; }
