	.file	"func.c"
	.text
	.p2align 4
	.globl	is_palindrome
	.type	is_palindrome, @function
is_palindrome:
	movq	%rsi, %rcx
	shrq	$63, %rcx
	addq	%rsi, %rcx
	sarq	%rcx
	cmpq	$1, %rsi
	jle	.L4
	leaq	-1(%rdi,%rsi), %rdx
	xorl	%eax, %eax
	jmp	.L3
	.p2align 4,,10
	.p2align 3
.L8:
	addq	$1, %rax
	subq	$1, %rdx
	cmpq	%rcx, %rax
	jge	.L4
.L3:
	movzbl	(%rdx), %esi
	cmpb	%sil, (%rdi,%rax)
	je	.L8
	xorl	%eax, %eax
	ret
	.p2align 4,,10
	.p2align 3
.L4:
	movl	$1, %eax
	ret
	.size	is_palindrome, .-is_palindrome
	.section	.note.GNU-stack,"",@progbits
