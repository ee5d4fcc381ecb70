static int credit, vended, change;

void vm_reset(void)
{
    credit = 0;
    vended = 0;
    change = 0;
}

int vm_coin(int cents)
{
    if (cents != 5 && cents != 10 && cents != 25)
        return -1;
    credit += cents;
    if (credit >= 35) {
        change = credit - 35;
        credit = 0;
        vended++;
    }
    return credit;
}

int vm_change(void)
{
    return change;
}

int vm_vended(void)
{
    return vended;
}

int vm_cancel(void)
{
    int refund = credit;
    credit = 0;
    return refund;
}
