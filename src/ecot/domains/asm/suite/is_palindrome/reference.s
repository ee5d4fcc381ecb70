# Two pointers meeting in the middle.
	.text
	.globl	is_palindrome
	.type	is_palindrome, @function
is_palindrome:
	leaq	-1(%rdi,%rsi), %rsi
.Lloop:
	cmpq	%rsi, %rdi
	jae	.Lyes
	movzbl	(%rdi), %eax
	cmpb	(%rsi), %al
	jne	.Lno
	addq	$1, %rdi
	subq	$1, %rsi
	jmp	.Lloop
.Lyes:
	movl	$1, %eax
	ret
.Lno:
	xorl	%eax, %eax
	ret
	.size	is_palindrome, .-is_palindrome
	.section	.note.GNU-stack,"",@progbits
