# (x > 0) or'ed with the sign mask x >> 63: no branches.
	.text
	.globl	sign_of
	.type	sign_of, @function
sign_of:
	xorl	%eax, %eax
	testq	%rdi, %rdi
	setg	%al
	sarq	$63, %rdi
	orq	%rdi, %rax
	ret
	.size	sign_of, .-sign_of
	.section	.note.GNU-stack,"",@progbits
