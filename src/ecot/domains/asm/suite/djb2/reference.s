# A single imul by 33 and an add per character.
	.text
	.globl	djb2
	.type	djb2, @function
djb2:
	movl	$5381, %eax
	movzbl	(%rdi), %edx
	testb	%dl, %dl
	je	.Ldone
.Lloop:
	imulq	$33, %rax, %rax
	addq	$1, %rdi
	addq	%rdx, %rax
	movzbl	(%rdi), %edx
	testb	%dl, %dl
	jne	.Lloop
.Ldone:
	ret
	.size	djb2, .-djb2
	.section	.note.GNU-stack,"",@progbits
