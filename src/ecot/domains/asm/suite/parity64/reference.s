# Fold the word down to 8 bits with xor; the parity flag then holds the answer.
	.text
	.globl	parity64
	.type	parity64, @function
parity64:
	movq	%rdi, %rax
	shrq	$32, %rax
	xorq	%rdi, %rax
	movl	%eax, %edx
	shrl	$16, %edx
	xorl	%edx, %eax
	xorb	%ah, %al
	setnp	%al
	movzbl	%al, %eax
	ret
	.size	parity64, .-parity64
	.section	.note.GNU-stack,"",@progbits
