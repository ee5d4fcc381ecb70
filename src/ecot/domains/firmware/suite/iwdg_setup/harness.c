/* Harness for iwdg_setup: QEMU leaves IWDG unimplemented, so its register trace is judged. */
extern void iwdg_start(void);
extern void iwdg_feed(void);

void harness_main(void)
{
    iwdg_start();
    iwdg_feed();
    iwdg_feed();
}
