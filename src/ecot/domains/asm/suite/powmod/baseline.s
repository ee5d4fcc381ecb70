	.file	"func.c"
	.text
	.p2align 4
	.globl	powmod
	.type	powmod, @function
powmod:
	movq	%rdx, %r8
	movl	$1, %eax
	xorl	%edx, %edx
	divq	%r8
	movq	%rdi, %rax
	movq	%rdx, %rcx
	xorl	%edx, %edx
	divq	%r8
	movq	%rdx, %r9
	testq	%rsi, %rsi
	je	.L1
	xorl	%edi, %edi
	.p2align 4,,10
	.p2align 3
.L3:
	movq	%rcx, %rax
	xorl	%edx, %edx
	addq	$1, %rdi
	imulq	%r9, %rax
	divq	%r8
	movq	%rdx, %rcx
	cmpq	%rdi, %rsi
	jne	.L3
.L1:
	movq	%rcx, %rax
	ret
	.size	powmod, .-powmod
	.section	.note.GNU-stack,"",@progbits
