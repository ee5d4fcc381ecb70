# The same Euclid loop with the division's outputs used in place.
	.text
	.globl	gcd
	.type	gcd, @function
gcd:
	movq	%rdi, %rax
	testq	%rsi, %rsi
	je	.Ldone
.Lloop:
	xorl	%edx, %edx
	divq	%rsi
	movq	%rsi, %rax
	movq	%rdx, %rsi
	testq	%rdx, %rdx
	jne	.Lloop
.Ldone:
	ret
	.size	gcd, .-gcd
	.section	.note.GNU-stack,"",@progbits
