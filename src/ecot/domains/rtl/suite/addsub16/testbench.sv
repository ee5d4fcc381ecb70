module tb;
    reg  [15:0] a, b;
    reg         sub;
    wire [15:0] result;
    wire        carry, overflow;
    reg  [15:0] exp_result;
    reg         exp_carry, exp_ovf;
    integer errors, samples, i, seed, sa, sb, sr;

    addsub16 dut (.a(a), .b(b), .sub(sub), .result(result), .carry(carry), .overflow(overflow));

    initial begin
        errors = 0; samples = 0; seed = 77;
        for (i = 0; i < 1500; i = i + 1) begin
            a = $random(seed); b = $random(seed); sub = $random(seed);
            case (i % 8)
                0: b = a;
                1: begin a = 16'h7FFF; b = 16'h0001; end
                2: begin a = 16'h8000; b = 16'h0001; end
                3: b = 16'h0000;
                default: ;
            endcase
            #1;
            sa = a[15] ? a - 65536 : a;
            sb = b[15] ? b - 65536 : b;
            if (sub) begin
                exp_result = a - b;
                exp_carry = (a >= b);
                sr = sa - sb;
            end else begin
                exp_result = a + b;
                exp_carry = (a + b) > 65535;
                sr = sa + sb;
            end
            exp_ovf = (sr > 32767) || (sr < -32768);
            samples = samples + 1;
            if (result !== exp_result) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=result expected=%h got=%h a=%h b=%h sub=%b", $time, exp_result, result, a, b, sub);
            end
            if (carry !== exp_carry) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=carry expected=%h got=%h a=%h b=%h sub=%b", $time, exp_carry, carry, a, b, sub);
            end
            if (overflow !== exp_ovf) begin
                errors = errors + 1;
                if (errors <= 5)
                    $display("MISMATCH time=%0t signal=overflow expected=%h got=%h a=%h b=%h sub=%b", $time, exp_ovf, overflow, a, b, sub);
            end
        end
        $display("Mismatches: %0d in %0d samples", errors, samples);
        $finish;
    end
endmodule
