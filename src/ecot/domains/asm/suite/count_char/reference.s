# Compare and add the flag, one branch per character.
	.text
	.globl	count_char
	.type	count_char, @function
count_char:
	xorl	%eax, %eax
	xorl	%ecx, %ecx
.Lloop:
	movzbl	(%rdi), %edx
	testb	%dl, %dl
	je	.Ldone
	cmpb	%sil, %dl
	sete	%cl
	addq	%rcx, %rax
	addq	$1, %rdi
	jmp	.Lloop
.Ldone:
	ret
	.size	count_char, .-count_char
	.section	.note.GNU-stack,"",@progbits
