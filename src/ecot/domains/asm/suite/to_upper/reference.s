# One unsigned range check per character, with the loop test at the bottom.
	.text
	.globl	to_upper
	.type	to_upper, @function
to_upper:
	movzbl	(%rdi), %eax
	testb	%al, %al
	je	.Ldone
.Lloop:
	leal	-97(%rax), %edx
	cmpb	$25, %dl
	ja	.Lnext
	subl	$32, %eax
	movb	%al, (%rdi)
.Lnext:
	addq	$1, %rdi
	movzbl	(%rdi), %eax
	testb	%al, %al
	jne	.Lloop
.Ldone:
	ret
	.size	to_upper, .-to_upper
	.section	.note.GNU-stack,"",@progbits
