# Two pointers walking toward each other.
	.text
	.globl	reverse_array
	.type	reverse_array, @function
reverse_array:
	leaq	-8(%rdi,%rsi,8), %rsi
	cmpq	%rsi, %rdi
	jae	.Ldone
.Lloop:
	movq	(%rdi), %rax
	movq	(%rsi), %rdx
	movq	%rdx, (%rdi)
	movq	%rax, (%rsi)
	addq	$8, %rdi
	subq	$8, %rsi
	cmpq	%rsi, %rdi
	jb	.Lloop
.Ldone:
	ret
	.size	reverse_array, .-reverse_array
	.section	.note.GNU-stack,"",@progbits
