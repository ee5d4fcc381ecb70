	.file	"func.c"
	.text
	.p2align 4
	.globl	sum_array
	.type	sum_array, @function
sum_array:
	testq	%rsi, %rsi
	jle	.L7
	cmpq	$1, %rsi
	je	.L8
	movq	%rsi, %rdx
	movq	%rdi, %rax
	pxor	%xmm0, %xmm0
	shrq	%rdx
	salq	$4, %rdx
	addq	%rdi, %rdx
	.p2align 4,,10
	.p2align 3
.L4:
	movdqu	(%rax), %xmm2
	addq	$16, %rax
	paddq	%xmm2, %xmm0
	cmpq	%rax, %rdx
	jne	.L4
	movdqa	%xmm0, %xmm1
	movq	%rsi, %rdx
	psrldq	$8, %xmm1
	andq	$-2, %rdx
	andl	$1, %esi
	paddq	%xmm1, %xmm0
	movq	%xmm0, %rax
	je	.L11
.L3:
	addq	(%rdi,%rdx,8), %rax
	ret
	.p2align 4,,10
	.p2align 3
.L11:
	ret
	.p2align 4,,10
	.p2align 3
.L7:
	xorl	%eax, %eax
	ret
.L8:
	xorl	%edx, %edx
	xorl	%eax, %eax
	jmp	.L3
	.size	sum_array, .-sum_array
	.section	.note.GNU-stack,"",@progbits
