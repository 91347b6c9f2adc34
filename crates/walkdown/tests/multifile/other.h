/* What other.c gives main.c. */
int check_pair(int a, int b);
