module tb;
    reg  [7:0] a, b;
    reg  [2:0] op;
    wire [7:0] y;
    wire       zero, carry;
    reg  [7:0] exp_y;
    reg        exp_carry;
    integer errors, samples, i, seed, sa, sb;

    alu8 dut (.a(a), .b(b), .op(op), .y(y), .zero(zero), .carry(carry));

    initial begin
        errors = 0; samples = 0; seed = 31337;
        for (i = 0; i < 2000; i = i + 1) begin
            a = $random(seed); b = $random(seed); op = i % 8;
            if (i % 24 < 8) op = $random(seed);
            if (i % 17 == 0) b = a;
            if (i % 19 == 0) begin a = 8'h80; b = 8'h7F; end
            #1;
            sa = a[7] ? a - 256 : a;
            sb = b[7] ? b - 256 : b;
            exp_carry = 1'b0;
            case (op)
                3'd0: begin exp_y = a + b; exp_carry = (a + b) > 255; end
                3'd1: begin exp_y = a - b; exp_carry = a < b; end
                3'd2: exp_y = a & b;
                3'd3: exp_y = a | b;
                3'd4: exp_y = a ^ b;
                3'd5: begin exp_y = a << 1; exp_carry = a[7]; end
                3'd6: begin exp_y = a >> 1; exp_carry = a[0]; end
                default: exp_y = (sa < sb) ? 8'h01 : 8'h00;
            endcase
            samples = samples + 1;
            if (y !== exp_y) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=y expected=%h got=%h op=%0d a=%h b=%h", $time, exp_y, y, op, a, b);
            end
            if (zero !== (exp_y == 8'h00)) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=zero expected=%h got=%h op=%0d a=%h b=%h", $time, exp_y == 8'h00, zero, op, a, b);
            end
            if (carry !== exp_carry) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=carry expected=%h got=%h op=%0d a=%h b=%h", $time, exp_carry, carry, op, a, b);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
