# A power of two is non-zero and has no bit left after clearing its lowest one.
	.text
	.globl	is_pow2
	.type	is_pow2, @function
is_pow2:
	leaq	-1(%rdi), %rax
	xorl	%edx, %edx
	testq	%rax, %rdi
	sete	%dl
	xorl	%eax, %eax
	testq	%rdi, %rdi
	setne	%al
	andl	%edx, %eax
	ret
	.size	is_pow2, .-is_pow2
	.section	.note.GNU-stack,"",@progbits
