/* Harness for gpio_button_read: idle (pull-up only), then pressed and released. */
extern void button_init(void);
extern int button_pressed(void);

void harness_main(void)
{
    ecot_preset(&GPIOC->MODER, 0x04000000u); /* PC13 left as an output */
    ecot_preset(&GPIOC->PUPDR, 0x08000000u); /* with a pull-down */
    button_init();
    ecot_result_int("idle", button_pressed());
    ecot_input(GPIOC, 13, 0);
    ecot_result_int("pressed", button_pressed());
    ecot_input(GPIOC, 13, 1);
    ecot_result_int("released", button_pressed());
    ecot_input(GPIOC, 13, 0);
    ecot_result_int("pressed_again", button_pressed());
}
