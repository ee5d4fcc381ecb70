	.file	"func.c"
	.text
	.p2align 4
	.globl	reverse_array
	.type	reverse_array, @function
reverse_array:
	subq	$1, %rsi
	testq	%rsi, %rsi
	jle	.L1
	xorl	%eax, %eax
	.p2align 4,,10
	.p2align 3
.L3:
	movq	(%rdi,%rax,8), %rdx
	movq	(%rdi,%rsi,8), %rcx
	movq	%rcx, (%rdi,%rax,8)
	addq	$1, %rax
	movq	%rdx, (%rdi,%rsi,8)
	subq	$1, %rsi
	cmpq	%rsi, %rax
	jl	.L3
.L1:
	ret
	.size	reverse_array, .-reverse_array
	.section	.note.GNU-stack,"",@progbits
