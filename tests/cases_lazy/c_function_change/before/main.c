#include <stdio.h>

static int square(int x)
{
    return x * x;
}

int main(void)
{
    int n = 4;
    printf("%d\n", square(n));
    return 0;
}
