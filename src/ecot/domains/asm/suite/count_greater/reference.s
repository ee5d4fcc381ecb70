# Signed compare turned unsigned by flipping sign bits, so adc counts without branches; two elements per iteration.
	.text
	.globl	count_greater
	.type	count_greater, @function
count_greater:
	xorl	%eax, %eax
	testq	%rsi, %rsi
	jle	.Ldone
	movabsq	$0x8000000000000000, %r8
	xorq	%r8, %rdx
	leaq	(%rdi,%rsi,8), %rdi
	negq	%rsi
	testb	$1, %sil
	je	.Lpairs
	movq	(%rdi,%rsi,8), %rcx
	xorq	%r8, %rcx
	cmpq	%rcx, %rdx
	adcq	$0, %rax
	addq	$1, %rsi
	je	.Ldone
.Lpairs:
	movq	(%rdi,%rsi,8), %rcx
	movq	8(%rdi,%rsi,8), %r9
	xorq	%r8, %rcx
	xorq	%r8, %r9
	cmpq	%rcx, %rdx
	adcq	$0, %rax
	cmpq	%r9, %rdx
	adcq	$0, %rax
	addq	$2, %rsi
	jne	.Lpairs
.Ldone:
	ret
	.size	count_greater, .-count_greater
	.section	.note.GNU-stack,"",@progbits
