#include <stdio.h>

static int square(int x)
{
    return x * x;
}

int main(void)
{
    int n = 4;
    int m = square(n);
    printf("%d\n", m);
    return 0;
}
