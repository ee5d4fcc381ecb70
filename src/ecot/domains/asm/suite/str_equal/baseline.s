	.file	"func.c"
	.text
	.p2align 4
	.globl	str_equal
	.type	str_equal, @function
str_equal:
	movzbl	(%rdi), %eax
	testb	%al, %al
	jne	.L2
	jmp	.L8
	.p2align 4,,10
	.p2align 3
.L4:
	movzbl	1(%rdi), %eax
	addq	$1, %rdi
	leaq	1(%rsi), %rdx
	testb	%al, %al
	je	.L9
	movq	%rdx, %rsi
.L2:
	movzbl	(%rsi), %edx
	cmpb	%al, %dl
	je	.L4
.L3:
	cmpb	%dl, %al
	sete	%al
	movzbl	%al, %eax
	ret
	.p2align 4,,10
	.p2align 3
.L9:
	movzbl	1(%rsi), %edx
	cmpb	%dl, %al
	sete	%al
	movzbl	%al, %eax
	ret
.L8:
	movzbl	(%rsi), %edx
	jmp	.L3
	.size	str_equal, .-str_equal
	.section	.note.GNU-stack,"",@progbits
