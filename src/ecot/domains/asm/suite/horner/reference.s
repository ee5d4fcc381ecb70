# Multiply-add with the coefficient read from memory, counting down.
	.text
	.globl	horner
	.type	horner, @function
horner:
	xorl	%eax, %eax
	testq	%rsi, %rsi
	jle	.Ldone
.Lloop:
	imulq	%rdx, %rax
	addq	-8(%rdi,%rsi,8), %rax
	subq	$1, %rsi
	jne	.Lloop
.Ldone:
	ret
	.size	horner, .-horner
	.section	.note.GNU-stack,"",@progbits
