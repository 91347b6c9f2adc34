/* Functions over lists, trees and arrays of structs, each a unit under
 * test (walkdown gen --entry NAME). Three have planted bugs:
 *  - move_key: the check fails only when src == dst (aliasing);
 *  - list_last: reads through NULL when the list is empty (a bug only
 *    for callers that pass NULL: it does not check, so by default its
 *    contract excludes NULL; --nullable head allows it);
 *  - max_price: reads one element past the array (i <= n). */
extern void reach_error(void);

struct node { int key; struct node *next; };
struct tree { int key; struct tree *left; struct tree *right; };
struct item { int price; int qty; };

/* Sorted insert of a given node; returns the new head. */
struct node *list_insert(struct node *head, struct node *n) {
  if (n == 0) return head;
  if (head == 0 || n->key <= head->key) {
    n->next = head;
    return n;
  }
  struct node *p = head;
  while (p->next != 0 && p->next->key < n->key) p = p->next;
  n->next = p->next;
  p->next = n;
  return head;
}

/* Unlinks the first node with the key; returns the new head. */
struct node *list_delete(struct node *head, int key) {
  if (head == 0) return 0;
  if (head->key == key) return head->next;
  struct node *p = head;
  while (p->next != 0) {
    if (p->next->key == key) {
      p->next = p->next->next;
      break;
    }
    p = p->next;
  }
  return head;
}

struct node *list_reverse(struct node *head) {
  struct node *prev = 0;
  int steps = 0;
  while (head != 0 && steps < 8) {
    struct node *next = head->next;
    head->next = prev;
    prev = head;
    head = next;
    steps++;
  }
  return prev;
}

struct node *list_find(struct node *head, int key) {
  int steps = 0;
  for (struct node *p = head; p != 0 && steps < 8; p = p->next, steps++)
    if (p->key == key) return p;
  return 0;
}

/* Counts nodes up to 8, telling a cycle from a long list. */
int list_length(struct node *head) {
  int n = 0;
  struct node *slow = head, *fast = head;
  while (fast != 0 && fast->next != 0) {
    slow = slow->next;
    fast = fast->next->next;
    if (slow == fast) return -1; /* a cycle */
    if (++n > 8) break;
  }
  return n;
}

/* Bug: the last node of an empty list. */
int list_last(struct node *head) {
  struct node *p = head;
  while (p->next != 0) p = p->next;
  return p->key;
}

/* Bug: moves src's key onto dst's; when src == dst, the key survives. */
void move_key(struct node *src, struct node *dst) {
  if (src == 0 || dst == 0) return;
  int k = src->key;
  src->key = 0;
  dst->key = dst->key + (k & 0xff);
  if (src->key != 0) reach_error();
}

int tree_find(struct tree *t, int key) {
  int depth = 0;
  while (t != 0 && depth < 8) {
    if (key == t->key) return 1;
    t = key < t->key ? t->left : t->right;
    depth++;
  }
  return 0;
}

int tree_height(struct tree *t) {
  if (t == 0) return 0;
  int l = t->left ? 1 + (t->left->left != 0 || t->left->right != 0) : 0;
  int r = t->right ? 1 + (t->right->left != 0 || t->right->right != 0) : 0;
  return 1 + (l > r ? l : r);
}

/* Whether the keys are ordered at the root and its children. */
int tree_ordered(struct tree *t) {
  if (t == 0) return 1;
  if (t->left != 0 && t->left->key >= t->key) return 0;
  if (t->right != 0 && t->right->key <= t->key) return 0;
  return 1;
}

int total_value(struct item *items, int n) {
  int sum = 0;
  for (int i = 0; i < n; i++) {
    if (items[i].qty < 0 || items[i].price < 0) return -1;
    if (items[i].qty > 100) sum += 100 * items[i].price;
    else sum += items[i].qty * items[i].price;
  }
  return sum;
}

/* Bug: one element too many. */
int max_price(struct item *items, int n) {
  int best = 0;
  for (int i = 0; i <= n; i++)
    if (items[i].price > best) best = items[i].price;
  return best;
}

int main(void) { return 0; }
