	.file	"func.c"
	.text
	.p2align 4
	.globl	bswap_loop
	.type	bswap_loop, @function
bswap_loop:
	movq	%rdi, %rcx
	movq	%rdi, %rax
	salq	$8, %rcx
	movzbl	%ah, %edx
	shrq	$56, %rax
	movzwl	%cx, %ecx
	orq	%rdx, %rcx
	movq	%rdi, %rdx
	shrq	$16, %rdx
	salq	$8, %rcx
	movzbl	%dl, %edx
	orq	%rcx, %rdx
	movq	%rdi, %rcx
	shrq	$24, %rcx
	salq	$8, %rdx
	movzbl	%cl, %ecx
	orq	%rdx, %rcx
	movq	%rdi, %rdx
	shrq	$32, %rdx
	salq	$8, %rcx
	movzbl	%dl, %edx
	orq	%rcx, %rdx
	movq	%rdi, %rcx
	shrq	$40, %rcx
	salq	$8, %rdx
	movzbl	%cl, %ecx
	orq	%rdx, %rcx
	movq	%rdi, %rdx
	shrq	$48, %rdx
	salq	$8, %rcx
	movzbl	%dl, %edx
	orq	%rcx, %rdx
	salq	$8, %rdx
	orq	%rdx, %rax
	ret
	.size	bswap_loop, .-bswap_loop
	.section	.note.GNU-stack,"",@progbits
