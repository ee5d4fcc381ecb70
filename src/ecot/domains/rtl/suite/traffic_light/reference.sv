module traffic_light (
    input  wire       clk,
    input  wire       rst,
    input  wire       car_ew,
    output reg  [2:0] ns,
    output reg  [2:0] ew
);
    localparam [2:0] NS_G = 3'd0, NS_Y = 3'd1, RED1 = 3'd2,
                     EW_G = 3'd3, EW_Y = 3'd4, RED2 = 3'd5;
    localparam [2:0] GREEN = 3'b001, YELLOW = 3'b010, RED = 3'b100;

    reg [2:0] state, next;
    reg [1:0] t;
    reg       leave;

    always @* begin
        case (state)
            NS_G: begin leave = (t == 2'd3) && car_ew; next = NS_Y; ns = GREEN;  ew = RED;    end
            NS_Y: begin leave = (t == 2'd1);           next = RED1; ns = YELLOW; ew = RED;    end
            RED1: begin leave = 1'b1;                  next = EW_G; ns = RED;    ew = RED;    end
            EW_G: begin leave = (t == 2'd3);           next = EW_Y; ns = RED;    ew = GREEN;  end
            EW_Y: begin leave = (t == 2'd1);           next = RED2; ns = RED;    ew = YELLOW; end
            RED2: begin leave = 1'b1;                  next = NS_G; ns = RED;    ew = RED;    end
            default: begin leave = 1'b1;               next = NS_G; ns = RED;    ew = RED;    end
        endcase
    end

    // t saturates at 3: only NS_GREEN can last longer, and it only needs to know t >= 3.
    always @(posedge clk) begin
        if (rst) begin
            state <= NS_G;
            t <= 2'd0;
        end else if (leave) begin
            state <= next;
            t <= 2'd0;
        end else if (t != 2'd3) begin
            t <= t + 2'd1;
        end
    end
endmodule
