# One load, one compare against memory and one test per character.
	.text
	.globl	str_equal
	.type	str_equal, @function
str_equal:
	xorl	%ecx, %ecx
.Lloop:
	movzbl	(%rdi,%rcx), %eax
	cmpb	(%rsi,%rcx), %al
	jne	.Lne
	addq	$1, %rcx
	testb	%al, %al
	jne	.Lloop
	movl	$1, %eax
	ret
.Lne:
	xorl	%eax, %eax
	ret
	.size	str_equal, .-str_equal
	.section	.note.GNU-stack,"",@progbits
