	.file	"func.c"
	.text
	.p2align 4
	.globl	count_words
	.type	count_words, @function
count_words:
	movzbl	(%rdi), %eax
	testb	%al, %al
	je	.L5
	xorl	%edx, %edx
	xorl	%ecx, %ecx
	jmp	.L4
	.p2align 4,,10
	.p2align 3
.L9:
	testl	%edx, %edx
	jne	.L3
	addq	$1, %rcx
	movl	$1, %edx
.L3:
	movzbl	1(%rdi), %eax
	addq	$1, %rdi
	testb	%al, %al
	je	.L1
.L4:
	cmpb	$32, %al
	jne	.L9
	movzbl	1(%rdi), %eax
	addq	$1, %rdi
	xorl	%edx, %edx
	testb	%al, %al
	jne	.L4
.L1:
	movq	%rcx, %rax
	ret
	.p2align 4,,10
	.p2align 3
.L5:
	xorl	%ecx, %ecx
	movq	%rcx, %rax
	ret
	.size	count_words, .-count_words
	.section	.note.GNU-stack,"",@progbits
