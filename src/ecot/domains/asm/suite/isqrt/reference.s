# Hardware square root of the double, then exact integer corrections (at most a step or two).
	.text
	.globl	isqrt
	.type	isqrt, @function
isqrt:
	testq	%rdi, %rdi
	js	.Lbig
	cvtsi2sdq	%rdi, %xmm0
	jmp	.Lsqrt
.Lbig:
	movq	%rdi, %rax
	shrq	%rax
	cvtsi2sdq	%rax, %xmm0
	addsd	%xmm0, %xmm0
.Lsqrt:
	sqrtsd	%xmm0, %xmm0
	cvttsd2siq	%xmm0, %rax
	movl	$0xffffffff, %edx
	cmpq	%rdx, %rax
	cmova	%rdx, %rax
.Ldown:
	movq	%rax, %rcx
	imulq	%rax, %rcx
	cmpq	%rdi, %rcx
	jbe	.Lup
	subq	$1, %rax
	jmp	.Ldown
.Lup:
	cmpq	%rdx, %rax
	jae	.Ldone
	leaq	1(%rax), %rcx
	imulq	%rcx, %rcx
	cmpq	%rdi, %rcx
	ja	.Ldone
	addq	$1, %rax
	jmp	.Lup
.Ldone:
	ret
	.size	isqrt, .-isqrt
	.section	.note.GNU-stack,"",@progbits
