	.file	"func.c"
	.text
	.p2align 4
	.globl	fib
	.type	fib, @function
fib:
	leal	-1(%rdi), %eax
	testl	%edi, %edi
	je	.L4
	movl	$1, %edx
	xorl	%esi, %esi
	.p2align 4,,10
	.p2align 3
.L3:
	movq	%rdx, %rcx
	subl	$1, %eax
	addq	%rsi, %rdx
	movq	%rcx, %rsi
	cmpl	$-1, %eax
	jne	.L3
	movq	%rcx, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	xorl	%ecx, %ecx
	movq	%rcx, %rax
	ret
	.size	fib, .-fib
	.section	.note.GNU-stack,"",@progbits
