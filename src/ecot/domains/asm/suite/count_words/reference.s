# Two loops, one for spaces and one inside a word: the state is where the code is.
	.text
	.globl	count_words
	.type	count_words, @function
count_words:
	xorl	%eax, %eax
.Lspace:
	movzbl	(%rdi), %edx
	addq	$1, %rdi
	cmpb	$32, %dl
	je	.Lspace
	testb	%dl, %dl
	je	.Ldone
	addq	$1, %rax
.Lword:
	movzbl	(%rdi), %edx
	addq	$1, %rdi
	cmpb	$32, %dl
	je	.Lspace
	testb	%dl, %dl
	jne	.Lword
.Ldone:
	ret
	.size	count_words, .-count_words
	.section	.note.GNU-stack,"",@progbits
