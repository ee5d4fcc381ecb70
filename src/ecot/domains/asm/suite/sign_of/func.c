long sign_of(long x)
{
    if (x > 0)
        return 1;
    if (x < 0)
        return -1;
    return 0;
}
