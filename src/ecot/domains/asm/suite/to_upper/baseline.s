	.file	"func.c"
	.text
	.p2align 4
	.globl	to_upper
	.type	to_upper, @function
to_upper:
	movzbl	(%rdi), %eax
	testb	%al, %al
	je	.L14
	.p2align 4,,10
	.p2align 3
.L5:
	leal	-97(%rax), %edx
	cmpb	$25, %dl
	ja	.L3
	subl	$32, %eax
	addq	$1, %rdi
	movb	%al, -1(%rdi)
	movzbl	(%rdi), %eax
	testb	%al, %al
	jne	.L5
	ret
	.p2align 4,,10
	.p2align 3
.L3:
	movzbl	1(%rdi), %eax
	addq	$1, %rdi
	testb	%al, %al
	jne	.L5
.L14:
	ret
	.size	to_upper, .-to_upper
	.section	.note.GNU-stack,"",@progbits
